/** `/`: straight on to the first workspace's traces. */
import { useEffect } from 'preact/hooks'
import { wsPath } from '../lib/paths'
import { navigate } from '../router'
import { firstWorkspace, useSession } from '../session'
import { Empty } from '../ui/bits'

export function HomePage() {
  const { me } = useSession()
  const first = firstWorkspace(me)
  useEffect(() => {
    if (first) navigate(wsPath(first.org, first.ws), { replace: true })
  }, [first?.org, first?.ws])
  return first ? null : <Empty>Your account has no workspace yet. An organization admin can add you to one.</Empty>
}
