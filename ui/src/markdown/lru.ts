// A cache bounded by the bytes it holds (UTF-16: two per char of key and value), dropping the
// least recently used entries first. Used for rendered final messages (render.ts).

export class ByteLru {
  private readonly map = new Map<string, string>();
  private held = 0;

  constructor(readonly maxBytes: number) {}

  /** The bytes an entry costs. */
  static cost(key: string, value: string): number {
    return (key.length + value.length) * 2;
  }

  get bytes(): number {
    return this.held;
  }

  get size(): number {
    return this.map.size;
  }

  /** The value, marked as the most recently used. */
  get(key: string): string | undefined {
    const value = this.map.get(key);
    if (value === undefined) return undefined;
    this.map.delete(key);
    this.map.set(key, value);
    return value;
  }

  /** Stores `value`, evicting the oldest entries to stay within the bound. An entry larger than
   * the whole bound is not kept. */
  set(key: string, value: string): void {
    const old = this.map.get(key);
    if (old !== undefined) {
      this.map.delete(key);
      this.held -= ByteLru.cost(key, old);
    }
    const cost = ByteLru.cost(key, value);
    if (cost > this.maxBytes) return;
    this.map.set(key, value);
    this.held += cost;
    for (const [k, v] of this.map) {
      if (this.held <= this.maxBytes) break;
      this.map.delete(k);
      this.held -= ByteLru.cost(k, v);
    }
  }

  clear(): void {
    this.map.clear();
    this.held = 0;
  }
}
