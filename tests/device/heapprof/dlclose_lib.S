// Two builds of one module for HeapprofTest.CodeUnloadedByDlcloseIsForgotten:
// without FATHOM_DL_VARIANT_B ("A") and with it ("B"). Both have the same code size and
// layout, so B, loaded after A is unloaded, lands where A was and its call to malloc
// returns to the very address A's did. Only the frame differs there: A's CFA is rsp+16,
// B's rsp+32. A rule or a frame kept from A would walk B's frame wrongly: at rsp+8, where
// A's return address would be, B stores the address of a call site in
// fathom_dl_decoy (a real return address with its own CFI), so a stale walk reads a
// plausible stack with that extra frame instead of failing.
        .text
        .globl  fathom_dl_alloc
        .type   fathom_dl_alloc, @function
fathom_dl_alloc:
        .cfi_startproc
#if defined(FATHOM_DL_VARIANT_B)
        subq    $24, %rsp                   // 4 bytes
        .cfi_adjust_cfa_offset 24
        leaq    .Ldecoy_ret(%rip), %rax     // 7 bytes
        movq    %rax, 8(%rsp)               // 5 bytes
        movl    $96, %edi                   // B's blocks are 96 bytes
#else
        subq    $8, %rsp                    // 4 bytes
        .cfi_adjust_cfa_offset 8
        .skip   12, 0x90                    // as long as B's lea and mov
        movl    $64, %edi                   // A's blocks are 64 bytes
#endif
        call    malloc@PLT
#if defined(FATHOM_DL_VARIANT_B)
        addq    $24, %rsp
        .cfi_adjust_cfa_offset -24
#else
        addq    $8, %rsp
        .cfi_adjust_cfa_offset -8
#endif
        ret
        .cfi_endproc
        .size   fathom_dl_alloc, .-fathom_dl_alloc

// Never called: only its return address is used, as B's decoy.
        .globl  fathom_dl_decoy
        .type   fathom_dl_decoy, @function
fathom_dl_decoy:
        .cfi_startproc
        subq    $8, %rsp
        .cfi_adjust_cfa_offset 8
        call    abort@PLT
.Ldecoy_ret:
        addq    $8, %rsp
        .cfi_adjust_cfa_offset -8
        ret
        .cfi_endproc
        .size   fathom_dl_decoy, .-fathom_dl_decoy

        .section .note.GNU-stack, "", @progbits
