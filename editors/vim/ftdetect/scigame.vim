" scigame cards: `.sci` is also Scilab's suffix, and Vim's own detection
" opens every .sci file as Scilab. A file whose first statement is
" `card NAME "TITLE"` is a scigame card; any other .sci file is left alone.
function! s:DetectScigame() abort
  for line in getline(1, min([line('$'), 50]))
    if line =~# '^\s*\(#.*\)\=$'
      continue
    endif
    if line =~# '^\s*card\s\+\h\w*\s\+"'
      set filetype=scigame
    endif
    return
  endfor
endfunction
autocmd BufNewFile,BufRead *.sci call s:DetectScigame()
