import { describe, expect, it } from "vitest";
import { ByteLru } from "./lru";

describe("ByteLru", () => {
  it("stays within its bytes, dropping the least recently used first", () => {
    const cost = ByteLru.cost("k0", "x".repeat(98)); // 200 bytes
    const lru = new ByteLru(cost * 3);
    lru.set("k0", "x".repeat(98));
    lru.set("k1", "x".repeat(98));
    lru.set("k2", "x".repeat(98));
    expect(lru.bytes).toBe(cost * 3);
    expect(lru.get("k0")).toBeDefined(); // k0 is now the most recent
    lru.set("k3", "x".repeat(98));
    expect(lru.get("k1")).toBeUndefined();
    expect(lru.get("k0")).toBeDefined();
    expect(lru.get("k2")).toBeDefined();
    expect(lru.get("k3")).toBeDefined();
    expect(lru.size).toBe(3);
    expect(lru.bytes).toBeLessThanOrEqual(lru.maxBytes);
  });

  it("evicts as many entries as one large entry needs", () => {
    const lru = new ByteLru(1000);
    for (let i = 0; i < 10; i++) lru.set(`k${i}`, "x".repeat(40)); // 84 bytes each
    lru.set("big", "y".repeat(400)); // 806 bytes
    expect(lru.get("big")).toBeDefined();
    expect(lru.bytes).toBeLessThanOrEqual(1000);
    expect(lru.size).toBe(3);
  });

  it("does not keep an entry larger than the bound, and replaces a key's value", () => {
    const lru = new ByteLru(100);
    lru.set("huge", "z".repeat(100));
    expect(lru.get("huge")).toBeUndefined();
    expect(lru.bytes).toBe(0);
    lru.set("a", "1");
    lru.set("a", "22");
    expect(lru.get("a")).toBe("22");
    expect(lru.bytes).toBe(ByteLru.cost("a", "22"));
  });
});
