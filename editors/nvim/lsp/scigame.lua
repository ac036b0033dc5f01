-- Neovim 0.11+: `vim.lsp.enable("scigame")` with editors/nvim on 'runtimepath'
-- (see docs/authoring.md). Neovim 0.10 and nvim-lspconfig: see the same page.
return {
  cmd = { "scigame", "lsp" },
  filetypes = { "scigame" },
  root_markers = { "pyproject.toml", ".git" },
}
