/* The few CUDA names the test kernels use, for clang-22 without the CUDA SDK:
 *   clang-22 -x cuda --cuda-device-only --cuda-gpu-arch=sm_80 -nocudainc -nocudalib -emit-llvm */
#pragma once
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
#define threadIdx_x __nvvm_read_ptx_sreg_tid_x()
#define threadIdx_y __nvvm_read_ptx_sreg_tid_y()
#define blockIdx_x __nvvm_read_ptx_sreg_ctaid_x()
#define blockIdx_y __nvvm_read_ptx_sreg_ctaid_y()
#define blockDim_x __nvvm_read_ptx_sreg_ntid_x()
#define blockDim_y __nvvm_read_ptx_sreg_ntid_y()
#define gridDim_x __nvvm_read_ptx_sreg_nctaid_x()
#define __syncthreads() __nvvm_barrier_sync(0)
#define FULL_MASK 0xffffffffu
static __device__ double atomicAdd(double *p, double v) { return __nvvm_atom_add_gen_d(p, v); }
static __device__ float atomicAddf(float *p, float v) { return __nvvm_atom_add_gen_f(p, v); }
