/** The shared test vectors of the text-key rule (pytest runs the same file), for the SDK's tests. */
import vectors from './content-keys.vectors.json' with { type: 'json' }

/** Attribute keys of every convention that hold text. */
export const TEXT_KEYS: readonly string[] = vectors.text
/** Keys that look alike but hold no text (roles, models, counts, near misses). */
export const KEPT_KEYS: readonly string[] = vectors.kept
/** Event name (null: none), attribute key, and whether that attribute is text. */
export const EVENT_VECTORS: ReadonlyArray<{ event: string | null; key: string; text: boolean }> = vectors.events
