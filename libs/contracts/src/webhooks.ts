// Webhook management commands and queries (request/reply between the gateway and the webhooks service).
export {};
