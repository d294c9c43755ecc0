/**
 * The Node.js version check of the service commands. A command's bin runs it before it loads
 * anything else: on an older Node, a dependency throws while being imported, so the bin imports
 * only this module statically (bundled into it) and the command itself with a dynamic import after.
 */

/**
 * Why this Node.js cannot run a command needing `needed` (`[major, minor]`, the package's
 * `engines.node`), as a sentence with the remedy; `undefined` when it can.
 */
export function olderNodeMessage(
  needed: readonly [number, number],
  running: string = process.versions.node,
): string | undefined {
  const [major = 0, minor = 0] = running.split('.').map(Number);
  if (major > needed[0] || (major === needed[0] && minor >= needed[1])) return undefined;
  return `this command needs Node.js ${needed.join('.')} or newer (this is ${running}): install a current Node.js LTS release and run it again.`;
}
