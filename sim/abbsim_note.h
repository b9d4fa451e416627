/*
 * abbsim_note.h - notes from the host software for the simulator's
 * waveform: the one definition of their kinds.
 *
 * Part of the simulator's C interface (abbsim.h includes it:
 * abbsim_trace_note takes a kind and a channel), and libabb's public
 * <abb/abb_sim.h> includes it (abb_sim_note takes the same kinds). The
 * simulator learns which DMA ends from the channel given with the note,
 * never from the note's text: the text is for the waveform's API lane
 * only. Installed next to abbsim.h.
 *
 * Plain C89/C++98: <abb/abb_sim.h> brings it into programs of any standard.
 */
#ifndef ABBSIM_NOTE_H
#define ABBSIM_NOTE_H

/* Kinds. TEXT: a line in the API lane. DMA_START / DMA_DONE / DMA_ERROR:
 * a DMA on the note's channel began or ended (libabb sends them; they
 * number the DMAs of the run for the window trace_dma=N-M and trigger the
 * flight recorder on an error). TEST_BEGIN / TEST_PASS / TEST_FAIL: the
 * text is the test's "suite/test" name (the window trace_test=, the
 * flight recorder on a failure). */
#define ABB_SIM_NOTE_TEXT 0u
#define ABB_SIM_NOTE_DMA_START 1u
#define ABB_SIM_NOTE_DMA_DONE 2u
#define ABB_SIM_NOTE_DMA_ERROR 3u
#define ABB_SIM_NOTE_TEST_BEGIN 4u
#define ABB_SIM_NOTE_TEST_PASS 5u
#define ABB_SIM_NOTE_TEST_FAIL 6u

/* The channel of a DMA note: the board's channel numbers of
 * <abb/abb_regs.h> (ABB_CH_C2H, board to host, abb_dma_read; ABB_CH_H2C,
 * host to board, abb_dma_write). Notes of the other kinds carry ABB_SIM_NOTE_NO_CHANNEL. */
#define ABB_SIM_NOTE_NO_CHANNEL 0xffu

#endif
