import { randomBytes } from 'node:crypto'

/**
 * What an operator gives every process of a Kafka-mode deployment (`openssl rand
 * -base64 32` each): Kafka mode refuses to start without them
 * (shared/control/service-secrets.ts). Fresh per stack; a restart reuses the stack's env.
 */
export function operatorSecrets(): { SVC_MASTER_KEY: string; SVC_JWT_SECRET: string } {
  return { SVC_MASTER_KEY: randomBytes(32).toString('base64'), SVC_JWT_SECRET: randomBytes(32).toString('base64') }
}
