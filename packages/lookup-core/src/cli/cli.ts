#!/usr/bin/env node
// Runs service-lookup (main.ts) with this process's arguments and ends with its exit code.
import { main } from './main.js';

main(process.argv.slice(2)).then((code) => process.exit(code));
