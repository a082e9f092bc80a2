/** Every JetStream event and job carries this envelope; `eventId` is also the `Nats-Msg-Id`. */
export interface EventEnvelope<TData> {
  eventId: string;
  subject: string;
  occurredAt: string;
  data: TData;
}
