/**
 * The bounds of the webhook side of a mock, so that nothing a client sends can grow without
 * limit: endpoints (the mock's, and each organisation's apart), kept deliveries (those of the
 * mock's endpoints, and each organisation's apart), deliveries waiting (one pool, each source's
 * share of it `sourceShare` of it), and the size of one event's body.
 */
export const webhookLimits = {
  endpoints: 100,
  endpointsPerOrganisation: 10,
  keptDeliveries: 1000,
  keptDeliveriesPerOrganisation: 250,
  pendingDeliveries: 1000,
  eventBodyBytes: 64 * 1024,
  urlLength: 2048,
  eventTypesPerEndpoint: 100,
} as const

/**
 * Svix's retry schedule: the delays before each retry, in milliseconds, each counted from the
 * attempt before it (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h).
 */
export const svixRetrySchedule = [
  5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000,
]
