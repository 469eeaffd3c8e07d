cd xdog-plugin-hello                 # your plugin's folder
npm install --save-dev xdog          # so the folder resolves `import 'xdog'`
xdog plugins link .                  # the user plugin directory now points here
xdog hello greet Ada                 # edit, run again: the change is there
xdog plugins uninstall xdog-plugin-hello
