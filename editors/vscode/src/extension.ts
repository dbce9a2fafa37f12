// The seedlint extension: starts `seedlint server` for Python files and notebooks, and
// leaves the rest (diagnostics, quick fixes, fix-all, code actions resolved lazily) to the
// language server protocol.
import * as vscode from "vscode";
import { LanguageClient, LanguageClientOptions, ServerOptions } from "vscode-languageclient/node";

let client: LanguageClient | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const config = vscode.workspace.getConfiguration("seedlint");
  const command = config.get<string[]>("path", ["seedlint"]);
  const serverOptions: ServerOptions = {
    command: command[0],
    args: [...command.slice(1), "server"],
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: "file", language: "python" },
      { scheme: "untitled", language: "python" },
      { notebook: "jupyter-notebook", language: "python" },
    ],
    initializationOptions: { debounce: config.get<number>("debounce", 100) },
  };
  client = new LanguageClient("seedlint", "seedlint", serverOptions, clientOptions);
  context.subscriptions.push(client);
  await client.start();
}

export async function deactivate(): Promise<void> {
  if (client !== undefined) {
    await client.stop();
  }
}
