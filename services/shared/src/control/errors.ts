export class ControlPayloadError extends Error {
  constructor(readonly eventType: string, detail: string) {
    super(`invalid ${eventType} payload: ${detail}`)
  }
}
