xdog plugins install ./docs/examples/xdog-plugin-hello   # a folder, a tarball or an npm spec
xdog plugins list                                        # name, version, source, state, provides (extensions too)
xdog plugins list --json
xdog hello greet Ada                                     # the plugin's own command
xdog plugins uninstall xdog-plugin-hello
