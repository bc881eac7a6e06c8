/* kaudit tracer: the small C interface that a harness uses to mark calls.
 *
 * libkaudit_tracer.so is loaded into a process through CUDA_INJECTION64_PATH.
 * A harness reaches these functions by opening the same file (its path is in
 * CUDA_INJECTION64_PATH), for example from Python with ctypes:
 *
 *   lib = ctypes.CDLL(os.environ["CUDA_INJECTION64_PATH"])
 *   lib.kaudit_call_begin(b"timed", b"4096x4096", b"bench", 3)
 *   ... the submission runs; the harness synchronizes the device ...
 *   lib.kaudit_call_end()
 *
 * Every kernel, copy and fill whose launching API call happens between a
 * begin and the next end belongs to that call; everything else is "outside
 * any call". Calls do not nest: a begin while a call is open ends that call
 * first (and the trace notes it). The functions are safe to call before CUDA
 * is initialised and from any thread; none of them blocks on the GPU.
 *
 * This header is plain C so that C, C++ and ctypes users see the same thing.
 * Why not NVTX: an NVTX call made before CUDA's first use, with
 * NVTX_INJECTION64_PATH pointing at CUPTI, made CUPTI refuse the tracer's
 * subscription on the H200 machine (docs/tracer.md).
 */
#ifndef KAUDIT_TRACER_H
#define KAUDIT_TRACER_H

#ifdef __cplusplus
extern "C" {
#endif

/* Opens a call. phase: "warmup", "correctness", "timed", ... ; shape and
 * mode are free text (for example "4096x4096" and "bench"); any may be NULL.
 * index: the call's number within its phase. Returns the call's id (> 0). */
int kaudit_call_begin(const char* phase, const char* shape, const char* mode, long long index);

/* Closes the open call. Returns its id, or 0 when no call was open. */
int kaudit_call_end(void);

/* 1 when CUPTI accepted the tracer's subscription in this process, 0 while
 * CUDA has not been initialised yet, -1 when tracing failed (the trace says
 * why). */
int kaudit_tracer_status(void);

/* Adds a line of text to the trace (for example what the harness did). */
void kaudit_tracer_note(const char* text);

/* Delivers every completed record to the trace file now. Blocking; call it
 * after synchronizing the device when the file must be complete up to here. */
void kaudit_tracer_flush(void);

/* Ends the trace as the process's exit would: delivers every record, writes
 * the end line (reason "finish") and stops tracing. For a program that ends
 * with _exit, which skips the exit handler; nothing is traced after it. */
void kaudit_tracer_finish(void);

#ifdef __cplusplus
}
#endif

#endif /* KAUDIT_TRACER_H */
