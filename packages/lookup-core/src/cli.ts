#!/usr/bin/env node
// Placeholder, replaced by the service-lookup command.
console.log('service-lookup');
