// CPython 3.14 as Pyodide, run as a command line: `python -c CODE` or `python -m MODULE`.
//
//   node tools/pyodide.mjs PYODIDE_DIR SITE_DIR CWD [--mount DIR]... [--path DIR]... (-c CODE | -m MODULE) [ARGS...]
//
// PYODIDE_DIR holds the npm package `pyodide`; SITE_DIR (pure-Python wheels installed with
// the host's pip) is added as a site directory, so its .pth files count; CWD and every
// --mount are host folders mounted at their own paths (so paths read the same on both sides;
// never onto /lib, which holds Pyodide's standard library); each --path is put first on sys.path
// (mount it too if it is not under CWD, the others or SITE_DIR). The environment is the host's,
// less what names host paths (HOME, PATH, PYTHONPATH, PYTHONHOME). Exits with Python's status.
import { readSync, writeSync } from "node:fs";
import { pathToFileURL } from "node:url";
import path from "node:path";
import { setFlagsFromString } from "node:v8";
import { isMainThread, Worker } from "node:worker_threads";

// Pyodide's stack is the JavaScript thread's, about 1 MB on Node's main thread: a 2,000-deep
// group chain overflows it. A worker thread gets the stack it asks for, whatever `ulimit -s` is.
const STACK_MB = 256;
if (isMainThread) {
  // WebAssembly stack switching (JSPI): what Pyodide's event loop needs to run a coroutine to
  // completion from synchronous code (asyncio.run). Node 20 has it behind this flag.
  setFlagsFromString("--experimental-wasm-stack-switching");
  // The switched-to stacks are where Python runs: as large as the thread's.
  setFlagsFromString(`--wasm-stack-switching-stack-size=${STACK_MB * 1024}`);
  const worker = new Worker(new URL(import.meta.url), {
    argv: process.argv.slice(2),
    resourceLimits: { stackSizeMb: STACK_MB },
  });
  worker.on("error", (error) => {
    writeSync(2, `${error?.stack ?? error}\n`);
    process.exit(70);
  });
  worker.on("exit", (code) => process.exit(code));
} else {
  await runWorker();
}

async function runWorker() {
  const [pyodideDir, siteDir, cwd, ...rest] = process.argv.slice(2);
  const mounts = [cwd, siteDir];
  const paths = [];
  while (rest[0] === "--mount" || rest[0] === "--path") {
    (rest.shift() === "--mount" ? mounts : paths).push(path.resolve(rest.shift()));
  }
  const [mode, target, ...args] = rest;
  if (!["-c", "-m"].includes(mode) || target === undefined) {
    writeSync(2, "usage: pyodide.mjs PYODIDE_DIR SITE_DIR CWD [--mount DIR]... [--path DIR]... (-c CODE | -m MODULE) [ARGS...]\n");
    process.exit(2);
  }

  const env = { ...process.env };
  for (const name of ["HOME", "PATH", "PYTHONPATH", "PYTHONHOME", "PWD", "OLDPWD"]) delete env[name];
  const { loadPyodide } = await import(pathToFileURL(path.join(pyodideDir, "pyodide.mjs")).href);
  const pyodide = await loadPyodide({ indexURL: pyodideDir + "/", env: { ...env, HOME: "/home/pyodide" } });
  // Raw byte streams, written synchronously: output keeps its order and is complete at exit.
  const stream = (fd) => ({ write: (buffer) => writeSync(fd, buffer) });
  pyodide.setStdout(stream(1));
  pyodide.setStderr(stream(2));
  // Standard input as a file's: read when Python asks, blocking, 0 bytes at its end.
  pyodide.setStdin({
    read: (buffer) => {
      try {
        return readSync(0, buffer, 0, buffer.length, null);
      } catch (error) {
        if (error.code === "EAGAIN") return readSync(0, buffer, 0, buffer.length, null);
        if (error.code === "EOF") return 0;
        throw error;
      }
    },
  });
  for (const dir of new Set(mounts.map((dir) => path.resolve(dir)))) {
    if (dir === "/lib" || dir.startsWith("/lib/")) throw new Error(`cannot mount ${dir}: Pyodide's standard library`);
    pyodide.FS.mkdirTree(dir);
    pyodide.FS.mount(pyodide.FS.filesystems.NODEFS, { root: dir }, dir);
  }

  const main = pyodide.runPython(`
import os, runpy, site, sys

def main(site_dir, cwd, paths, mode, target, args):
    site.addsitedir(site_dir)
    os.chdir(cwd)
    sys.path[:0] = ["" if mode == "-c" else cwd, *paths]
    sys.argv = ["-c" if mode == "-c" else target, *args]
    try:
        if mode == "-c":
            import __main__
            exec(compile(target, "<string>", "exec"), __main__.__dict__)
        else:
            runpy.run_module(target, run_name="__main__", alter_sys=True)
    except SystemExit as exit:
        if exit.code is None:
            return 0
        if isinstance(exit.code, int):
            return exit.code
        print(exit.code, file=sys.stderr)
        return 1
    except BaseException as error:
        # As CPython's own top level: without this runner's frame.
        error.__traceback__ = error.__traceback__.tb_next
        sys.excepthook(type(error), error, error.__traceback__)
        return 1
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
    return 0

main
  `);
  // Called as a promising entry point: the stack switches that the event loop makes need one.
  const status = await main.callPromising(path.resolve(siteDir), path.resolve(cwd), pyodide.toPy(paths), mode, target, pyodide.toPy(args));
  process.exit(status);
}
