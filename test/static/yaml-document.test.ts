import { InvalidYamlError, parseYaml, parseYamlDocuments } from './yaml-document';

describe('the YAML reading of the deployment checks', () => {
  it('resolves merge keys, with explicit keys winning over merged ones, as docker-compose.yml relies on', () => {
    const doc = parseYaml(
      ['x-env: &env', '  A: "1"', '  B: two', 'svc:', '  environment:', '    <<: *env', '    B: three'].join(
        '\n',
      ),
      'x.yml',
    );
    expect(doc).toEqual({ 'x-env': { A: '1', B: 'two' }, svc: { environment: { A: '1', B: 'three' } } });
  });

  it('types plain scalars as Compose and Kubernetes do, so an unquoted yes is no string', () => {
    const doc = parseYaml(
      [
        'a: yes',
        'b: "yes"',
        'c: 9100',
        'd: 0.1.0',
        'e: ~',
        'f: 15s',
        'g: off',
        'h: 2024-01-02',
        'i: .',
        'j: 4100:4100',
      ].join('\n'),
      'x.yml',
    );
    expect(doc).toEqual({
      a: true,
      b: 'yes',
      c: 9100,
      d: '0.1.0',
      e: null,
      f: '15s',
      g: false,
      h: '2024-01-02',
      i: '.',
      j: '4100:4100',
    });
  });

  it('reads every document of a stream and drops empty ones', () => {
    expect(
      parseYamlDocuments(['---', 'a: 1', '---', '# nothing', '---', 'b: [x, 2]', '---'].join('\n'), 'x.yaml'),
    ).toEqual([{ a: 1 }, { b: ['x', 2] }]);
  });

  it('fails naming the file and line on a duplicate key', () => {
    const read = (): unknown => parseYaml('a: 1\na: 2', 'deploy/k8s/x.yaml');
    expect(read).toThrow(InvalidYamlError);
    expect(read).toThrow(/^deploy\/k8s\/x\.yaml: Map keys must be unique at line 2/);
  });

  it('fails on bad indentation, an unknown alias and tags that yield no plain value', () => {
    expect(() => parseYaml('a:\n    b: 1\n  c: 2', 'x.yml')).toThrow(/^x\.yml: .* at line 3/);
    expect(() => parseYaml('a: *nope', 'x.yml')).toThrow(/^x\.yml: .*nope/);
    expect(() => parseYaml('a: !!binary aGk=', 'x.yml')).toThrow(
      new InvalidYamlError('a is Uint8Array, not a mapping, sequence or plain scalar', 'x.yml'),
    );
  });

  it('expects one document where one is read', () => {
    expect(() => parseYaml('a: 1\n---\nb: 2', 'x.yml')).toThrow(
      new InvalidYamlError('expected one YAML document, found 2', 'x.yml'),
    );
  });
});
