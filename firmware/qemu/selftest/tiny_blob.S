/*
** tiny_blob.S — the input image of the self-test model tiny.c (12x12x3
** int8, 432 bytes, tiny_input.bin) in read-only data, included the way a
** generated model includes model.bin: the build passes this folder to the
** assembler's include path (-Wa,-I,DIR).
*/
    .section .rodata.tiny_input, "a"
    .balign 4
    .global tiny_input
tiny_input:
    .incbin "tiny_input.bin"
    .size tiny_input, . - tiny_input
    .section .note.GNU-stack, "", %progbits
