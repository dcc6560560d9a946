/* mcDNN version (opemu). MACA 3.7.1 installs mcDNN 1.1.1 (reference mcdnn.md §1b); the version number
 * follows the cuDNN 8 formula the rest of the API mirrors. */
#ifndef MCDNN_VERSION_H_
#define MCDNN_VERSION_H_

#define MCDNN_MAJOR 1
#define MCDNN_MINOR 1
#define MCDNN_PATCHLEVEL 1

#define MCDNN_VERSION (MCDNN_MAJOR * 1000 + MCDNN_MINOR * 100 + MCDNN_PATCHLEVEL)

#endif
