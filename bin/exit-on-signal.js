// Turn SIGTERM and SIGHUP into a normal exit, so exit hooks run and end the
// process groups xdog started (bash commands, stdio MCP servers). SIGINT stays
// with the commands: interactive chat uses it to abort a run first.
for (const [signal, number] of [['SIGTERM', 15], ['SIGHUP', 1]]) {
  process.once(signal, () => process.exit(128 + number));
}
