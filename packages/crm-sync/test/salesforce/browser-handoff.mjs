// BROWSER for the real-browser login test: `service-crm login` runs this as it would run a
// browser, with the URL to open; it hands the URL to the test, whose Chromium opens it.
// Usage: node browser-handoff.mjs HANDOFF_URL URL
const [handoff, url] = process.argv.slice(2);
await fetch(handoff, { method: 'POST', body: url });
