import { YamlSubsetError, parseYaml, parseYamlDocuments } from './mini-yaml';

describe('the YAML subset reader used by the deployment checks', () => {
  it('resolves anchors, aliases and merge keys, with explicit keys winning over merged ones', () => {
    const doc = parseYaml(
      [
        'x-env: &env',
        '  A: "1"',
        '  B: two',
        'svc:',
        '  environment:',
        '    <<: *env',
        '    B: three',
        '  deps: *env',
      ].join('\n'),
    );
    expect(doc).toEqual({
      'x-env': { A: '1', B: 'two' },
      svc: { environment: { A: '1', B: 'three' }, deps: { A: '1', B: 'two' } },
    });
  });

  it('reads sequences of mappings, also when the sequence sits at its key’s indentation', () => {
    const doc = parseYaml(
      ['containers:', '- name: a', '  env:', '    - name: X', '      value: "9100"', '- name: b', 'after: 1'].join('\n'),
    );
    expect(doc).toEqual({ containers: [{ name: 'a', env: [{ name: 'X', value: '9100' }] }, { name: 'b' }], after: 1 });
  });

  it('keeps # inside quoted scalars and drops comments elsewhere', () => {
    const doc = parseYaml(['# head', 'a: "x # y" # trailing', "b: 'it''s # z'", 'c: [one, "two, three", 3] # c', 'd: p#q'].join('\n'));
    expect(doc).toEqual({ a: 'x # y', b: "it's # z", c: ['one', 'two, three', 3], d: 'p#q' });
  });

  it('types plain scalars as Kubernetes’ YAML 1.1 parser does', () => {
    const doc = parseYaml(['a: yes', 'b: "yes"', 'c: 9100', 'd: 0.1.0', 'e: ~', 'f: 15s', 'g: off'].join('\n'));
    expect(doc).toEqual({ a: true, b: 'yes', c: 9100, d: '0.1.0', e: null, f: '15s', g: false });
  });

  it('splits documents on --- and reads block scalars', () => {
    const docs = parseYamlDocuments(['a: |', '  line one', '  # kept', '---', 'b: >-', '  folded', '  text'].join('\n'));
    expect(docs).toEqual([{ a: 'line one\n# kept\n' }, { b: 'folded text' }]);
  });

  it('rejects flow mappings with the line number instead of misreading them', () => {
    expect(() => parseYaml('a: 1\nb: { c: d }')).toThrow(new YamlSubsetError('flow mappings are not supported; use block style', 2));
  });

  it('rejects multi-line plain scalars, bad indentation, duplicate keys and unknown aliases', () => {
    expect(() => parseYaml('a: one\n  two')).toThrow(/line 1: multi-line plain scalars are not supported/);
    expect(() => parseYaml('a:\n    b: 1\n  c: 2')).toThrow(/line 3: unexpected indentation of 'c: 2'/);
    expect(() => parseYaml('a: 1\na: 2')).toThrow(/line 2: duplicate key 'a'/);
    expect(() => parseYaml('a: *nope')).toThrow(/line 1: unknown alias \*nope/);
  });
});
