// Placeholder, replaced by the Salesforce entry point (connection, field setup, reads, writes).
export const entry = 'salesforce';
