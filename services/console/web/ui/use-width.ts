/**
 * The rendered width of an element, kept current by a ResizeObserver: charts draw
 * at the size they are shown, so their text stays legible on a phone instead of
 * shrinking with a scaled viewBox.
 */
import { useEffect, useRef, useState } from 'preact/hooks'

export function useWidth<E extends Element>(fallback: number): { ref: { current: E | null }; width: number } {
  const ref = useRef<E>(null)
  const [width, setWidth] = useState(0)
  useEffect(() => {
    const el = ref.current
    if (!el) return
    const measure = () => setWidth(Math.round(el.getBoundingClientRect().width))
    measure()
    const ro = new ResizeObserver(measure)
    ro.observe(el)
    return () => ro.disconnect()
  }, [])
  return { ref, width: width > 0 ? width : fallback }
}
