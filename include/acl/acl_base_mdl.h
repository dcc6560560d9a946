/* AscendCL base model types: an empty placeholder in this release (the model API lives elsewhere). */
#ifndef INC_EXTERNAL_ACL_ACL_BASE_MDL_H_
#define INC_EXTERNAL_ACL_ACL_BASE_MDL_H_

#endif /* INC_EXTERNAL_ACL_ACL_BASE_MDL_H_ */
