// CHANGELOG lines for `changeset version`, offline: each changeset's text as written, without the
// commit hash @changesets/cli/changelog puts in front (a hash means nothing to a package's user).
const indent = (lines) => lines.map((line) => (line ? `  ${line}` : line)).join('\n');

export default {
  getReleaseLine(changeset) {
    const [first, ...rest] = changeset.summary.trim().split('\n');
    return rest.length === 0 ? `- ${first}` : `- ${first}\n${indent(rest)}`;
  },
  getDependencyReleaseLine(_changesets, dependencies) {
    if (dependencies.length === 0) return '';
    const list = dependencies.map((d) => `  - ${d.name}@${d.newVersion}`);
    return ['- Updated dependencies:', ...list].join('\n');
  },
};
