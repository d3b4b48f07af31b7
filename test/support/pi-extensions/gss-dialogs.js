// Test extension (copied into a test's agent home): one command per dialog an extension can open,
// so a test sees Pi draw each of them. Each waits for the answer and then does nothing with it.
export default function gssDialogs(pi) {
  pi.registerCommand("gss-select", {
    description: "open a select dialog",
    handler: async (_args, ctx) => {
      await ctx.ui.select("Pick a colour", ["red", "green", "blue"]);
    },
  });
  pi.registerCommand("gss-confirm", {
    description: "open a confirm dialog",
    handler: async (_args, ctx) => {
      await ctx.ui.confirm("Delete it?", "This cannot be undone.");
    },
  });
  pi.registerCommand("gss-input", {
    description: "open an input dialog",
    handler: async (_args, ctx) => {
      await ctx.ui.input("Your name", "type here");
    },
  });
  pi.registerCommand("gss-editor", {
    description: "open an editor dialog",
    handler: async (_args, ctx) => {
      await ctx.ui.editor("Edit the note", "some text");
    },
  });
}
