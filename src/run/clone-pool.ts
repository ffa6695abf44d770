/** Hands out the lowest free clone number in O(log n), so very wide levels stay linear overall. */
export class ClonePool {
  private next = 0;
  /** A binary min-heap of released numbers below `next`. */
  private readonly free: number[] = [];

  acquire(): number {
    if (this.free.length === 0) return this.next++;
    const top = this.free[0]!;
    const last = this.free.pop()!;
    if (this.free.length > 0) {
      this.free[0] = last;
      let index = 0;
      for (;;) {
        const left = 2 * index + 1;
        const right = left + 1;
        let smallest = index;
        if (left < this.free.length && this.free[left]! < this.free[smallest]!) smallest = left;
        if (right < this.free.length && this.free[right]! < this.free[smallest]!) smallest = right;
        if (smallest === index) break;
        this.swap(index, smallest);
        index = smallest;
      }
    }
    return top;
  }

  release(clone: number): void {
    this.free.push(clone);
    let index = this.free.length - 1;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (this.free[parent]! <= this.free[index]!) break;
      this.swap(index, parent);
      index = parent;
    }
  }

  /** Without a destructuring swap, which makes an array per step until the optimiser removes it. */
  private swap(a: number, b: number): void {
    const held = this.free[a]!;
    this.free[a] = this.free[b]!;
    this.free[b] = held;
  }
}
