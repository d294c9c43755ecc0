// Placeholder, replaced by the node:http adapter (toNodeListener).
export const adapter = 'node';
