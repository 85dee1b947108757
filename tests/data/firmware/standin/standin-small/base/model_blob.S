/* model_blob.S — the stand-in's weights and input, from model.bin (assembled with -Wa,-I,DIR). */
    .section .rodata.rk_standin_blob, "a"
    .balign 16
    .global rk_standin_blob
rk_standin_blob:
    .incbin "model.bin"
