-- scigame cards in Neovim: `.sci` is also Scilab's suffix. A file whose first
-- statement is `card NAME "TITLE"` is a scigame card; other .sci files stay Scilab.
vim.filetype.add({
  extension = {
    sci = function(_, bufnr)
      for _, line in ipairs(vim.api.nvim_buf_get_lines(bufnr, 0, 50, false)) do
        if not line:match("^%s*$") and not line:match("^%s*#") then
          return line:match('^%s*card%s+[%a_][%w_]*%s+"') and "scigame" or "scilab"
        end
      end
      return "scilab"
    end,
  },
})
