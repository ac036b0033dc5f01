// The scigame language server for VS Code: runs `scigame lsp` over stdio for .sci files.
const vscode = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const command = vscode.workspace.getConfiguration("scigame").get("server.command", "scigame");
  const server = { command, args: ["lsp"], transport: TransportKind.stdio };
  client = new LanguageClient("scigame", "scigame language server", { run: server, debug: server }, {
    documentSelector: [{ language: "sci" }],
  });
  context.subscriptions.push({ dispose: () => client && client.stop() });
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
