#!/usr/bin/env node
// Lint Neo4j-dialect Cypher with Neo4j's own front end (@neo4j-cypher/language-support).
//
// stdin:  JSON list of {"name": str, "text": str, "params": [str, ...]}
// stdout: JSON list of {"name", "severity", "line", "column", "message"}
//         (line and column 1-based; severity "error", "warning", "info" or "hint").
// Exit status 0 when the queries were checked (whatever they contain), 2 on bad input.
import { lintCypherQuery, testData } from '@neo4j-cypher/language-support';

const VERSION = 'CYPHER 5';
const SEVERITY = { 1: 'error', 2: 'warning', 3: 'info', 4: 'hint' };
// graphmem needs no plugin, so APOC / GDS names must be flagged as unknown.
const BUILT_IN_PROCEDURE = /^(db|dbms|tx)\./;

// The package ships the function and procedure signatures of a real Neo4j server
// (recorded for its own tests). Those are the names the linter checks calls against;
// we keep the built-in ones of Cypher 5 and drop the plugins.
function builtInSignatures() {
  const { functions, procedures } = testData.mockSchema;
  const keep = (registry, test) =>
    Object.fromEntries(Object.entries(registry[VERSION]).filter(([, sig]) => test(sig)));
  return {
    functions: { [VERSION]: keep(functions, (f) => f.isBuiltIn) },
    procedures: { [VERSION]: keep(procedures, (p) => BUILT_IN_PROCEDURE.test(p.name)) },
  };
}

function readStdin() {
  return new Promise((resolve, reject) => {
    let data = '';
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (chunk) => (data += chunk));
    process.stdin.on('end', () => resolve(data));
    process.stdin.on('error', reject);
  });
}

function parseQueries(raw) {
  const queries = JSON.parse(raw);
  if (!Array.isArray(queries)) throw new Error('expected a JSON list of queries');
  for (const q of queries) {
    if (typeof q?.name !== 'string' || typeof q?.text !== 'string' || !Array.isArray(q?.params)) {
      throw new Error(`each query needs name, text and params; got ${JSON.stringify(q).slice(0, 200)}`);
    }
  }
  return queries;
}

function lintOne(query, signatures) {
  // Declared parameters only need to exist; their values are never used by the check.
  const parameters = Object.fromEntries(query.params.map((p) => [p, null]));
  const schema = { ...signatures, parameters, defaultLanguage: VERSION };
  const { diagnostics } = lintCypherQuery(query.text, schema, { consoleCommandsEnabled: false });
  return diagnostics.map((d) => ({
    name: query.name,
    severity: SEVERITY[d.severity] ?? String(d.severity),
    line: d.range.start.line + 1,
    column: d.range.start.character + 1,
    message: d.message,
  }));
}

async function main() {
  let queries;
  try {
    queries = parseQueries(await readStdin());
  } catch (err) {
    process.stderr.write(`cypher-lint: bad input: ${err.message}\n`);
    process.exit(2);
  }
  const signatures = builtInSignatures();
  const out = queries.flatMap((q) => lintOne(q, signatures));
  process.stdout.write(JSON.stringify(out, null, 1) + '\n');
}

main();
