// The package ships no types; this is the shape its README documents (prom2json's JSON).
declare module 'parse-prometheus-text-format' {
  interface RawSample {
    labels?: Record<string, string>;
    value?: string;
    count?: string;
    sum?: string;
    buckets?: Record<string, string>;
  }
  interface RawFamily {
    name: string;
    help: string;
    type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED';
    metrics: RawSample[];
  }
  function parsePrometheusTextFormat(text: string): RawFamily[];
  export = parsePrometheusTextFormat;
}
