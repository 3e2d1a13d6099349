// The channels whose traffic the account's summary counts, in the order it lists them. A list with
// no imports: the console imports it as it is (its overview's rows).
export const TRAFFIC_CHANNELS = ["sms", "whatsapp", "email", "voice"] as const;
export type TrafficChannel = (typeof TRAFFIC_CHANNELS)[number];
