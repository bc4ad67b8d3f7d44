/**
 * Keep `value` under `key` in `map`, dropping the oldest entry first when the map holds `limit`:
 * the planner's memory of the last few texts it read (several tools of one clause are filled in
 * turn, and ranking and slot filling read the same clause). Returns `value`.
 */
export function keepRecent<K, V>(map: Map<K, V>, limit: number, key: K, value: V): V {
  if (map.size >= limit) map.delete(map.keys().next().value!);
  map.set(key, value);
  return value;
}

/** Append `item` to `list`, dropping the oldest first when the list holds `limit`: the readings of one text. */
export function keepLast<T>(list: T[], limit: number, item: T): void {
  if (list.length >= limit) list.shift();
  list.push(item);
}
