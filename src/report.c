/* ripsim report: written in the next commit */
