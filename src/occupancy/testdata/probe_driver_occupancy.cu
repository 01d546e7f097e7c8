#include <cstdio>
#include <cuda_runtime.h>
__global__ void k(float* p){ extern __shared__ float s[]; if(p) p[threadIdx.x]=s[threadIdx.x]; }
int main(){ cudaDeviceProp p; cudaGetDeviceProperties(&p,0);
printf("name=%s cc=%d.%d sms=%d maxThrSM=%d maxThrBlk=%d regsSM=%d regsBlk=%d smemSM=%zu smemBlk=%zu optin=%zu reserved=%zu maxBlocksSM=%d\n",p.name,p.major,p.minor,p.multiProcessorCount,p.maxThreadsPerMultiProcessor,p.maxThreadsPerBlock,p.regsPerMultiprocessor,p.regsPerBlock,p.sharedMemPerMultiprocessor,p.sharedMemPerBlock,p.sharedMemPerBlockOptin,p.reservedSharedMemPerBlock,p.maxBlocksPerMultiProcessor);
cudaFuncAttributes a; cudaFuncGetAttributes(&a,k); printf("numRegs=%d static=%zu\n",a.numRegs,a.sharedSizeBytes);
cudaFuncSetAttribute(k,cudaFuncAttributeMaxDynamicSharedMemorySize,232448);
int bs[]={32,128,256,1024}; size_t sm[]={0,1,1024,3072,8192,20000,48*1024,100*1024,116*1024,232448};
for(int b:bs)for(size_t d:sm){int n=-1; cudaError_t e=cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n,k,b,d); printf("block=%d dyn=%zu blocks=%d err=%d\n",b,d,n,(int)e);}
int pcts[]={0,10,25,50,100}; for(int c:pcts){cudaFuncSetAttribute(k,cudaFuncAttributePreferredSharedMemoryCarveout,c); for(size_t d: {(size_t)1024,(size_t)8192,(size_t)20000}){int n; cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n,k,256,d); printf("carveout=%d block=256 dyn=%zu blocks=%d\n",c,d,n);}}
}
