/**
 * Work still owed by the documentation, in one place each. Both lists only shrink: a package or a
 * file leaves its list when its docs are finished, and the checks then hold it to the full rule.
 */

/**
 * Packages whose API reference is not finished: their warnings (an export without a doc comment, a
 * type referenced but not exported) are listed by `pnpm docs:api` but do not fail it. Empty means
 * every published package is held to `typedoc.json`'s `treatWarningsAsErrors`.
 */
export const packagesWithUnfinishedReference: readonly string[] = [];

/**
 * Markdown files (relative to the repository root) whose ```ts blocks do not compile or run yet:
 * their failures are listed by test/code-blocks.test.ts but do not fail it.
 */
export const filesWithUnfinishedCodeBlocks: readonly string[] = [];
