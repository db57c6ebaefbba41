/**
 * Runs the ingest app on its port (and OTLP/gRPC on SVC_INGEST_GRPC_PORT when set)
 * over dependencies owned by the caller (the
 * standalone main.ts, or the all-in-one process): close() stops this service and
 * leaves the bus and control plane to whoever created them.
 */
import { listen } from '@svc/shared/http/serve'
import { createIngestApp, type IngestApp, type IngestDeps } from './app.js'
import { startGrpcIngest } from './grpc.js'

/** Longest a shutdown waits for admitted requests to become durable on the bus. */
export const DRAIN_TIMEOUT_MS = 10_000

export interface RunningIngest {
  port: number
  /** The OTLP/gRPC port, when SVC_INGEST_GRPC_PORT is set. */
  grpcPort: number | null
  ingest: IngestApp
  close(): Promise<void>
}

export async function startIngest(deps: IngestDeps): Promise<RunningIngest> {
  const ingest = createIngestApp(deps)
  const server = await listen(ingest.app, { host: deps.config.SVC_HOST, port: deps.config.SVC_INGEST_PORT, log: deps.log, name: 'ingest' })
  const grpcPort = deps.config.SVC_INGEST_GRPC_PORT
  const grpc = grpcPort === undefined ? null : await startGrpcIngest(ingest.routeDeps, { host: deps.config.SVC_HOST, port: grpcPort, log: deps.log }).catch(async (err: unknown) => {
    await server.close()
    throw err
  })
  let closing: Promise<void> | null = null
  return {
    port: server.port,
    grpcPort: grpc?.port ?? null,
    ingest,
    close: () =>
      (closing ??= (async () => {
        // New trace requests get 503 (exporters retry elsewhere or later); admitted ones finish
        // their produce before the sockets close, so every 202 sent is durable.
        // The budget is shared by HTTP and gRPC, so both refuse new requests from here on.
        if (!(await ingest.drain(DRAIN_TIMEOUT_MS))) deps.log.warn({ inflight_bytes: ingest.budget.inflightBytes }, 'ingest drain timed out')
        await Promise.all([server.close(), grpc?.close(), ingest.admission.stop()])
      })()),
  }
}
