/**
 * The control state a command needs (which workspace a slug names), folded from
 * control.events.v1 the way every process folds it (control/state.ts).
 *
 * Kafka: an ephemeral subscription from the start (ControlPlane), as the services
 * do. Embedded log: the topic's segment files are read, never opened through the
 * bus: opening a partition truncates a torn tail, which in a file the running
 * service is appending to may be a write in progress. A frame that is incomplete
 * or fails its CRC ends the read of its segment (the service's own open would cut
 * it too).
 */
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { createBus } from '@svc/shared/bus/index'
import { frameSize, LoggedRecord } from '@svc/shared/bus/embedded/framing'
import { controlEventV1 } from '@svc/shared/bus/records'
import { TOPICS } from '@svc/shared/bus/topics'
import type { Config } from '@svc/shared/config'
import { ControlPlane } from '@svc/shared/control/control-plane'
import { parseControlEvent } from '@svc/shared/control/events'
import { ControlState } from '@svc/shared/control/state'
import type { Logger } from '@svc/shared/log'

export async function readEmbeddedControlState(dataDir: string): Promise<ControlState> {
  const state = new ControlState()
  const dir = join(dataDir, 'log', TOPICS.controlEvents, '0')
  const files = (await readdir(dir).catch(() => [] as string[])).filter((f) => /^\d{20}\.log$/.test(f)).sort()
  for (const f of files) {
    const buf = await readFile(join(dir, f))
    const chunk = { topic: TOPICS.controlEvents, partition: 0, buf }
    for (let pos = 0, size = frameSize(buf, pos); size > 0; pos += size, size = frameSize(buf, pos)) {
      const event = parseControlEvent(controlEventV1.decode(new LoggedRecord(chunk, pos).value))
      if (event) state.apply(event)
    }
  }
  return state
}

export async function loadControlState(config: Config, log: Logger): Promise<ControlState> {
  if (config.SVC_BUS !== 'kafka') return readEmbeddedControlState(config.SVC_DATA_DIR)
  const bus = await createBus(config, log)
  try {
    const plane = await ControlPlane.start(bus, log)
    await plane.close()
    return plane.state
  } finally {
    await bus.close()
  }
}
