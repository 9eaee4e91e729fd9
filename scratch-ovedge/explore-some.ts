import { explore } from '../harness/drills/explorer/explore.js';
const policies = (process.argv[2] ?? 'buffer-one,buffer-all,replace,skip').split(',') as never[];
const r = await explore({ runs: Number(process.argv[3] ?? 200), seed: Number(process.argv[4] ?? 1), shape: { model: 'lambda', overlapPolicies: policies } });
console.log(JSON.stringify({ violations: r.violations, shapes: Object.fromEntries(Object.entries(r.shapes).filter(([k]) => k.startsWith('overlap'))), outcomes: r.outcomes }, null, 1));
if (r.failure) { console.log(r.failure.message); console.log(JSON.stringify(r.failure.history)); }
