#!/usr/bin/env node
// Placeholder, replaced by the service-crm command.
console.log('service-crm');
