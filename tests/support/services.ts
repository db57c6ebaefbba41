import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort, REPO_ROOT } from './process.js'

/**
 * Kafka and Redis for the integration tests, from the first source that works:
 *   1. KAFKA_BROKERS / REDIS_URL in the environment (CI starts them itself);
 *   2. a Docker engine, through testcontainers;
 *   3. local processes: the broker from deploy/kafka (Java + Maven) and redis-server.
 * When none works the error says what to install: a test run never silently skips them.
 */

export interface ProvidedKafka {
  brokers: string
  stop(): Promise<void>
}

export interface ProvidedRedis {
  url: string
  stop(): Promise<void>
}

const KAFKA_IMAGE = 'apache/kafka:3.9.1'
const REDIS_IMAGE = 'redis:7-alpine'
const KAFKA_START_TIMEOUT_MS = 90_000
const REDIS_START_TIMEOUT_MS = 15_000
const STOP_GRACE_MS = 10_000

/**
 * Deletes the topics whose names start with `prefix`: what one run (a benchmark, a
 * test stack) created on a broker that outlives it. Left there, every run's topics
 * pile up on a long-lived development broker (one here had 23 GB of them and took
 * two minutes to start). Returns how many were deleted.
 */
export async function deleteTopicsWithPrefix(brokers: string, prefix: string): Promise<number> {
  if (!prefix) throw new Error('refusing to delete every topic: the prefix is empty')
  const { Kafka, logLevel } = await import('kafkajs')
  const admin = new Kafka({ clientId: 'test-cleanup', brokers: brokers.split(','), logLevel: logLevel.NOTHING }).admin()
  await admin.connect()
  try {
    const topics = (await admin.listTopics()).filter((t) => t.startsWith(prefix))
    if (topics.length) await admin.deleteTopics({ topics, timeout: 30_000 })
    return topics.length
  } finally {
    await admin.disconnect()
  }
}

const noop = async () => {}
const progress = (msg: string) => process.stderr.write(`[test services] ${msg}\n`)

export async function provideKafka(): Promise<ProvidedKafka> {
  const fromEnv = process.env.KAFKA_BROKERS?.trim()
  if (fromEnv) {
    progress(`Kafka: using KAFKA_BROKERS=${fromEnv}`)
    return { brokers: fromEnv, stop: noop }
  }
  if (await dockerAvailable()) return kafkaContainer()
  return localKafka()
}

export async function provideRedis(): Promise<ProvidedRedis> {
  const fromEnv = process.env.REDIS_URL?.trim()
  if (fromEnv) {
    progress(`Redis: using REDIS_URL=${fromEnv.replace(/\/\/[^@/]*@/, '//***@')}`)
    return { url: fromEnv, stop: noop }
  }
  if (await dockerAvailable()) return redisContainer()
  return localRedis()
}

// ---------------------------------------------------------------- docker

let dockerCheck: Promise<boolean> | undefined

/** Whether a container engine answers; asked once, and quickly, since most dev machines here have none. */
function dockerAvailable(): Promise<boolean> {
  dockerCheck ??= (async () => {
    if (process.env.SVC_TEST_NO_DOCKER === '1') return false
    const host = process.env.DOCKER_HOST
    const sockets = ['/var/run/docker.sock', join(process.env.HOME ?? '', '.docker/run/docker.sock'), `/run/user/${process.getuid?.() ?? 0}/docker.sock`]
    if (!host && !sockets.some((s) => existsSync(s))) return false
    try {
      const { getContainerRuntimeClient } = await import('testcontainers')
      const client = await withTimeout(getContainerRuntimeClient(), 5000, 'docker ping')
      progress(`using container runtime ${client.info.containerRuntime.host}`)
      return true
    } catch (err) {
      progress(`no usable container engine (${(err as Error).message}); falling back to local processes`)
      return false
    }
  })()
  return dockerCheck
}

async function kafkaContainer(): Promise<ProvidedKafka> {
  const { GenericContainer, Wait } = await import('testcontainers')
  // The broker must advertise the address the tests dial, so the host port is fixed up front.
  const hostPort = await freePort()
  progress(`Kafka: starting ${KAFKA_IMAGE} on host port ${hostPort}`)
  const container = await new GenericContainer(KAFKA_IMAGE)
    .withExposedPorts({ container: 9092, host: hostPort })
    .withEnvironment({
      KAFKA_NODE_ID: '1',
      KAFKA_PROCESS_ROLES: 'broker,controller',
      KAFKA_LISTENERS: 'PLAINTEXT://:9092,CONTROLLER://:9093',
      KAFKA_ADVERTISED_LISTENERS: `PLAINTEXT://127.0.0.1:${hostPort}`,
      KAFKA_CONTROLLER_LISTENER_NAMES: 'CONTROLLER',
      KAFKA_LISTENER_SECURITY_PROTOCOL_MAP: 'CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT',
      KAFKA_INTER_BROKER_LISTENER_NAME: 'PLAINTEXT',
      KAFKA_CONTROLLER_QUORUM_VOTERS: '1@localhost:9093',
      KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR: '1',
      KAFKA_OFFSETS_TOPIC_NUM_PARTITIONS: '1',
      KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR: '1',
      KAFKA_TRANSACTION_STATE_LOG_MIN_ISR: '1',
      KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS: '0',
      KAFKA_GROUP_MIN_SESSION_TIMEOUT_MS: '1000',
      KAFKA_AUTO_CREATE_TOPICS_ENABLE: 'false',
      KAFKA_NUM_PARTITIONS: '1',
    })
    .withWaitStrategy(Wait.forLogMessage('Kafka Server started'))
    .withStartupTimeout(KAFKA_START_TIMEOUT_MS)
    .start()
  return { brokers: `127.0.0.1:${hostPort}`, stop: async () => void (await container.stop()) }
}

async function redisContainer(): Promise<ProvidedRedis> {
  const { GenericContainer, Wait } = await import('testcontainers')
  progress(`Redis: starting ${REDIS_IMAGE}`)
  const container = await new GenericContainer(REDIS_IMAGE)
    .withExposedPorts(6379)
    .withCommand(['redis-server', '--save', '', '--appendonly', 'no'])
    .withWaitStrategy(Wait.forLogMessage('Ready to accept connections'))
    .withStartupTimeout(REDIS_START_TIMEOUT_MS * 4)
    .start()
  return { url: `redis://${container.getHost()}:${container.getMappedPort(6379)}`, stop: async () => void (await container.stop()) }
}

// ---------------------------------------------------------------- local processes

const KAFKA_DIR = join(REPO_ROOT, 'deploy/kafka')
const KAFKA_LIB = join(KAFKA_DIR, 'target/lib')

const INSTALL_HINT =
  'Integration tests need Kafka and Redis. Provide them one of these ways:\n' +
  '  - set KAFKA_BROKERS=host:port and REDIS_URL=redis://host:port to use running ones;\n' +
  '  - run a Docker engine (testcontainers starts them);\n' +
  '  - install Java 17+, Maven and redis-server (Debian/Ubuntu: apt-get install -y openjdk-17-jre-headless maven redis-server);\n' +
  '    the broker jars are then fetched from Maven Central into deploy/kafka/target/lib.'

function onPath(cmd: string, args = ['--version']): boolean {
  const r = spawnSync(cmd, args, { stdio: 'ignore' })
  return !r.error && r.status === 0
}

function haveKafkaJars(): boolean {
  return existsSync(KAFKA_LIB) && readdirSync(KAFKA_LIB).some((f) => f.startsWith('kafka_2.13-'))
}

async function localKafka(): Promise<ProvidedKafka> {
  const port = await freePort()
  const controllerPort = await freePort()
  const logDir = mkdtempSync(join(tmpdir(), 'svc-test-kafka-'))
  const broker = await startLocalBroker({ port, controllerPort, logDir })
  return {
    brokers: broker.brokers,
    stop: async () => {
      await broker.stop('SIGTERM')
      rmSync(logDir, { recursive: true, force: true })
    },
  }
}

export interface LocalBroker {
  brokers: string
  /** Stops the broker (SIGTERM: a clean shutdown, SIGKILL: a crash); the log dir stays. */
  stop(signal: 'SIGTERM' | 'SIGKILL'): Promise<void>
}

/**
 * deploy/kafka/run-local-broker.sh on a log dir the caller owns, ready when it says
 * "Kafka Server started". Starting again on the same dir and ports is a restart.
 */
export async function startLocalBroker(opts: { port: number; controllerPort: number; logDir: string }): Promise<LocalBroker> {
  ensureKafkaJars()
  progress(`Kafka: starting local broker on 127.0.0.1:${opts.port} (data ${opts.logDir})`)
  const child = spawnGroup(join(KAFKA_DIR, 'run-local-broker.sh'), [], {
    PORT: String(opts.port),
    CONTROLLER_PORT: String(opts.controllerPort),
    LOG_DIR: opts.logDir,
  })
  const stop = (signal: 'SIGTERM' | 'SIGKILL') => stopGroup(child, signal)
  try {
    await waitForLine(child, 'Kafka Server started', KAFKA_START_TIMEOUT_MS, 'Kafka broker')
  } catch (err) {
    await stop('SIGKILL')
    throw err
  }
  progress(`Kafka: broker ready on 127.0.0.1:${opts.port}`)
  return { brokers: `127.0.0.1:${opts.port}`, stop }
}

function ensureKafkaJars(): void {
  if (!onPath('java', ['-version'])) throw new Error(`Kafka: the local broker (deploy/kafka/run-local-broker.sh) needs java 17+ on PATH.\n${INSTALL_HINT}`)
  if (haveKafkaJars()) return
  if (!onPath('mvn')) throw new Error(`Kafka: the broker jars are missing (deploy/kafka/target/lib) and mvn is not on PATH.\n${INSTALL_HINT}`)
  progress('Kafka: fetching broker jars with Maven (first run only)')
  // Fetched before the start timer runs: a cold Maven cache can take minutes.
  const r = spawnSync('mvn', ['-q', '-B', '-f', join(KAFKA_DIR, 'pom.xml'), 'dependency:copy-dependencies', '-DincludeScope=runtime', '-DoutputDirectory=target/lib'], {
    stdio: ['ignore', 'inherit', 'inherit'],
  })
  if (r.status !== 0 || !haveKafkaJars()) throw new Error(`Kafka: fetching the broker jars with Maven failed (exit ${r.status}).\n${INSTALL_HINT}`)
}

async function localRedis(): Promise<ProvidedRedis> {
  if (!onPath('redis-server')) throw new Error(`Redis: no REDIS_URL, no Docker engine, and no redis-server on PATH.\n${INSTALL_HINT}`)
  const port = await freePort()
  progress(`Redis: starting local redis-server on 127.0.0.1:${port}`)
  const child = spawnGroup('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {})
  const stop = () => stopGroup(child, 'SIGTERM')
  try {
    await waitForLine(child, 'Ready to accept connections', REDIS_START_TIMEOUT_MS, 'redis-server')
  } catch (err) {
    await stop()
    throw err
  }
  return { url: `redis://127.0.0.1:${port}`, stop }
}

type OutputChild = ChildProcess & { output: () => string }

/** Spawns in its own process group so stop reaches the whole tree (the script, mvn, java). */
function spawnGroup(cmd: string, args: string[], env: Record<string, string>): OutputChild {
  let output = ''
  const child = spawn(cmd, args, {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  })
  const keep = (d: Buffer) => {
    output += d.toString()
    // Only the tail matters for diagnostics; a long-running broker must not grow memory.
    if (output.length > 200_000) output = output.slice(-100_000)
  }
  child.stdout!.on('data', keep)
  child.stderr!.on('data', keep)
  // If the test runner dies without teardown, don't leave a broker behind.
  const onExit = () => killGroup(child, 'SIGKILL')
  process.once('exit', onExit)
  child.once('exit', () => process.removeListener('exit', onExit))
  return Object.assign(child, { output: () => output })
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return
  try {
    process.kill(-child.pid, signal)
  } catch {
    // already gone
  }
}

async function stopGroup(child: ChildProcess, signal: 'SIGTERM' | 'SIGKILL'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise<void>((r) => child.once('exit', () => r()))
  killGroup(child, signal)
  const timer = setTimeout(() => killGroup(child, 'SIGKILL'), STOP_GRACE_MS)
  await exited
  clearTimeout(timer)
}

async function waitForLine(child: OutputChild, needle: string, timeoutMs: number, what: string): Promise<void> {
  const started = Date.now()
  let lastReport = started
  for (;;) {
    if (child.output().includes(needle)) return
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`${what} exited (${child.exitCode ?? child.signalCode}) before it was ready:\n${child.output().slice(-8000)}\n${INSTALL_HINT}`)
    const now = Date.now()
    if (now - started > timeoutMs) throw new Error(`${what} not ready within ${timeoutMs / 1000} s:\n${child.output().slice(-8000)}`)
    if (now - lastReport >= 10_000) {
      lastReport = now
      progress(`${what}: still starting (${Math.round((now - started) / 1000)} s)`)
    }
    await new Promise((r) => setTimeout(r, 100))
  }
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms)
      timer.unref()
    }),
  ])
}
