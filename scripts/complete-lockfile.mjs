// Completes package-lock.json with the platform packages that this machine's registry does not serve.
//
// npm writes a lock entry for every optional platform package (`@rollup/rollup-darwin-arm64`, …) only when the
// registry answers for it. The registry reached here serves the linux-x64 and linux-arm64 variants of some packages
// and 404s the rest, so a lock made here holds only those, and `npm ci` anywhere refuses it as out of sync with
// package.json ("Missing: @rollup/rollup-darwin-arm64@ from lock file"). This script adds the missing entries with
// the exact version the parent pins, its flags (dev/optional) and the os/cpu/libc that the package's name states,
// so that npm skips them on other platforms and installs them (by name and version) where they fit.
//
// Usage: node scripts/complete-lockfile.mjs [--check]   (--check: exit 1 and list what is missing, change nothing)
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const lockPath = join(dirname(fileURLToPath(import.meta.url)), '..', 'package-lock.json');

/** Where Node's resolution finds `name` from the package at `from` (a lock key), or undefined. */
export function resolveInLock(packages, from, name) {
  let base = from;
  for (;;) {
    const key = `${base ? `${base}/` : ''}node_modules/${name}`;
    if (packages[key]) return key;
    if (!base) return undefined;
    const cut = base.lastIndexOf('/node_modules/');
    base = cut < 0 ? '' : base.slice(0, cut);
  }
}

/** Every optional dependency that no lock entry provides: [{ parent, name, range }]. */
export function missingOptionalDependencies(lock) {
  const missing = [];
  for (const [parent, entry] of Object.entries(lock.packages)) {
    for (const [name, range] of Object.entries(entry.optionalDependencies ?? {})) {
      if (!resolveInLock(lock.packages, parent, name)) missing.push({ parent, name, range });
    }
  }
  return missing;
}

const OSES = ['aix', 'android', 'darwin', 'freebsd', 'linux', 'netbsd', 'openbsd', 'openharmony', 'sunos', 'win32'];
const CPUS = {
  x64: 'x64',
  arm64: 'arm64',
  arm: 'arm',
  ia32: 'ia32',
  loong64: 'loong64',
  ppc64: 'ppc64',
  riscv64: 'riscv64',
  s390x: 's390x',
  mips64el: 'mips64el',
};

/** os/cpu/libc from a platform package's name (`@rollup/rollup-linux-arm-musleabihf`), or undefined. */
export function platformOfName(name) {
  const parts = name.split('/').pop().split('-');
  const osAt = parts.findIndex((part) => OSES.includes(part));
  if (osAt < 0) return undefined;
  const cpu = CPUS[parts[osAt + 1]];
  if (!cpu) return undefined;
  const rest = parts.slice(osAt + 2).join('-');
  const platform = { os: [parts[osAt]], cpu: [cpu] };
  if (parts[osAt] === 'linux') {
    if (/^musl/.test(rest)) platform.libc = ['musl'];
    else if (/^gnu/.test(rest)) platform.libc = ['glibc'];
  }
  return platform;
}

export function completeLock(lock) {
  const added = [];
  const problems = [];
  for (const { parent, name, range } of missingOptionalDependencies(lock)) {
    const platform = platformOfName(name);
    if (!platform) {
      problems.push(`${name} (from ${parent}): not a platform package; run npm install`);
      continue;
    }
    if (!/^\d+\.\d+\.\d+(-[\w.]+)?$/.test(range)) {
      problems.push(`${name}@${range} (from ${parent}): not an exact version`);
      continue;
    }
    const parentEntry = lock.packages[parent];
    const hoisted = `node_modules/${name}`;
    const nested = `${parent}/node_modules/${name}`;
    const entry = { version: range, ...platform };
    if (parentEntry.dev) entry.dev = true;
    if (parentEntry.devOptional) entry.devOptional = true;
    entry.optional = true;
    // npm's own key order (version first, the rest alphabetical), so that a later `npm install` leaves the file be.
    const ordered = Object.fromEntries(
      Object.entries(entry).sort(([a], [b]) => (a === 'version' ? -1 : b === 'version' ? 1 : a.localeCompare(b))),
    );
    lock.packages[lock.packages[hoisted] ? nested : hoisted] = ordered;
    added.push(`${name}@${range}`);
  }
  lock.packages = Object.fromEntries(
    Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b, 'en'))),
  );
  return { added, problems };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const lock = JSON.parse(readFileSync(lockPath, 'utf8'));
  if (process.argv.includes('--check')) {
    const missing = missingOptionalDependencies(lock);
    for (const { parent, name, range } of missing)
      console.log(`missing ${name}@${range} (optional dependency of ${parent})`);
    process.exit(missing.length ? 1 : 0);
  }
  const { added, problems } = completeLock(lock);
  writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`);
  console.log(`added ${added.length} platform entries${added.length ? `: ${added.join(', ')}` : ''}`);
  for (const problem of problems) console.error(problem);
  process.exit(problems.length ? 1 : 0);
}
