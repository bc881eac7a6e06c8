// precision-lowered in CUDA device code: fp8 e4m3 tiles are converted to bf16
// and fed to bf16 WMMA, so an fp8 GEMM runs on bf16 tensor cores.
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <mma.h>

using namespace nvcuda;

__global__ void fp8_gemm_as_bf16(const __nv_fp8_e4m3* A, const __nv_fp8_e4m3* B, float* C, int M, int N, int K) {
    __shared__ __nv_bfloat16 As[16 * 16];
    __shared__ __nv_bfloat16 Bs[16 * 16];
    const int tile_m = blockIdx.y * 16, tile_n = blockIdx.x * 16;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> a_frag;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> b_frag;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    for (int k0 = 0; k0 < K; k0 += 16) {
        for (int i = threadIdx.x; i < 256; i += blockDim.x) {
            int r = i / 16, c = i % 16;
            As[i] = __nv_bfloat16(A[(tile_m + r) * K + k0 + c]);  // expect: precision-lowered
            Bs[i] = static_cast<__nv_bfloat16>(B[(tile_n + r) * K + k0 + c]);  // expect: precision-lowered
        }
        __syncthreads();
        wmma::load_matrix_sync(a_frag, As, 16);
        wmma::load_matrix_sync(b_frag, Bs, 16);
        wmma::mma_sync(acc, a_frag, b_frag, acc);
        __syncthreads();
    }
    wmma::store_matrix_sync(C + tile_m * N + tile_n, acc, N, wmma::mem_row_major);
}

// Near-miss: bf16 to float in an epilogue is not an fp8 upcast.
__global__ void bf16_epilogue(const __nv_bfloat16* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = __bfloat162float(x[i]) * 2.0f;
}
