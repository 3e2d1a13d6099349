// The caches of the hot paths (keys, logins, account rules, prices, DLT lists, links read lately):
// a Map that forgets everything at once when it is full, so its memory stays bounded whatever the
// traffic. Cheaper than keeping an order of use (LRU): what is in use comes back at its next send.

/** A Map of at most `max` entries: a set when it is full first forgets all the others. */
export class BoundedMap<K, V> extends Map<K, V> {
  constructor(readonly max: number) {
    super();
  }

  override set(key: K, value: V): this {
    if (this.size >= this.max) this.clear();
    return super.set(key, value);
  }
}
