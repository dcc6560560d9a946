/* What the MACA libraries above the runtime (mcDNN, mcBLAS) use of it. */
#ifndef OPEMU_MC_H
#define OPEMU_MC_H

/* The calling thread's MACA device (mcSetDevice; 0 until then). */
int opemu_mc_current_device(void);

#endif
