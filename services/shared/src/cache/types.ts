/**
 * Cache and coordination: Redis (ioredis) when REDIS_URL is set (required in Kafka
 * mode, where several processes must agree), in-process otherwise.
 */
export interface Cache {
  readonly kind: 'redis' | 'memory'
  get(key: string): Promise<string | null>
  set(key: string, value: string, ttlMs?: number): Promise<void>
  /**
   * Sets only when absent; true when this call set it. The basis of locks and once-only
   * work. Without a positive ttlMs the key never expires (shared secrets).
   */
  setIfAbsent(key: string, value: string, ttlMs?: number): Promise<boolean>
  del(key: string): Promise<void>
  /** Atomic add; creates the key at 0 first. Returns the new value. */
  incrBy(key: string, by: number, ttlMs?: number): Promise<number>
  close(): Promise<void>
}
