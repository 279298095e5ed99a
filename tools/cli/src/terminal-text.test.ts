import { terminalSafe, terminalText } from './terminal-text';

describe('terminalText', () => {
  it('leaves ordinary text alone, accents, CJK and emoji included', () => {
    expect(terminalText('order o-1001 · reserve-inventory: café 注文 📦')).toBe('order o-1001 · reserve-inventory: café 注文 📦');
  });

  it('shows an escape sequence and a BEL as visible escapes instead of sending them to the terminal', () => {
    expect(terminalText('o-1\x1b]0;pwned\x07\x1b[2J')).toBe('o-1\\x1b]0;pwned\\x07\\x1b[2J');
  });

  it('shows a newline and a carriage return, so a stored reason cannot print a fake history line', () => {
    const reason = 'customer asked\n  2030-01-01T00:00:00.000Z  Error -> Processing #2  operator:admin: approved by the owner\rX';
    const shown = terminalText(reason);
    expect(shown).not.toMatch(/[\n\r]/);
    expect(shown).toBe('customer asked\\n  2030-01-01T00:00:00.000Z  Error -> Processing #2  operator:admin: approved by the owner\\rX');
  });

  it('shows tabs, NUL, DEL and C1 controls (the one-byte CSI U+009B)', () => {
    expect(terminalText('a\tb\u0000c\u007fd\u009b31me\u0085')).toBe('a\\tb\\x00c\\x7fd\\x9b31me\\x85');
  });

  it('shows bidirectional overrides, embeddings, isolates and marks, so an id cannot be shown reversed', () => {
    expect(terminalText('o-\u202e1001gpj.exe')).toBe('o-\\u202e1001gpj.exe');
    expect(terminalText('\u202a\u202b\u202c\u202d\u2066\u2067\u2068\u2069\u200e\u200f\u061c')).toBe(
      '\\u202a\\u202b\\u202c\\u202d\\u2066\\u2067\\u2068\\u2069\\u200e\\u200f\\u061c',
    );
  });

  it('shows the Unicode line and paragraph separators', () => {
    expect(terminalText('a\u2028b\u2029c')).toBe('a\\u2028b\\u2029c');
  });
});

describe('terminalSafe', () => {
  it('passes every line through terminalText before printing it', () => {
    const printed: string[] = [];
    const print = terminalSafe((l) => printed.push(l));
    print('reason: \x1b[31mred\x1b[0m\nforged');
    expect(printed).toEqual(['reason: \\x1b[31mred\\x1b[0m\\nforged']);
  });
});
