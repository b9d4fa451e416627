# rtl-model/equiv/equiv.mk - Yosys equivalence of abb_top against an earlier
# revision (included by rtl-model/rtl.mk). For rewrites that must not change
# behaviour (simulation speed: issue 19); method: rtl-model/equiv/README.md.
#
#   make equiv [EQUIV_REV=<rev>]   this tree's RTL against <rev>'s, every
#                                  configuration of equiv.sh (about 2 min each)
#   make equiv-broken              each variant of broken.txt (the work tree
#                                  with one line broken on purpose) must be
#                                  rejected by the same proof
#
# EQUIV_REV defaults to the RTL as the DDR2 counter-width fix left it
# (9eaaab9: the last change of behaviour on purpose; README.md). Output in
# $(B)/equiv/<name>/ (the two source copies, the Yosys script and log).

EQUIV_REV    ?= 9eaaab9
EQUIV_B      := $(B)/equiv
EQUIV_BROKEN := rtl-model/equiv/broken.txt

.PHONY: equiv equiv-broken

# the sources as rtl.mk lists them (package first), without the directory
EQUIV_SRCS := $(notdir $(RTL_SRCS))
export EQUIV_SRCS

equiv:
	@rtl-model/equiv/equiv.sh $(EQUIV_B)/proof $(EQUIV_REV)

# broken.txt: one variant a line, "file<TAB>sed expression<TAB>what it breaks"
equiv-broken:
	@n=0; bad=0; while IFS='	' read -r f e why; do \
	  case "$$f" in ''|'#'*) continue;; esac; n=$$((n + 1)); \
	  if EQUIV_CONFIGS=default: rtl-model/equiv/equiv.sh $(EQUIV_B)/broken$$n $(EQUIV_REV) "$$f" "$$e" \
	       > $(EQUIV_B)/broken$$n.out 2>&1; then \
	    echo "equiv-broken: $$n ($$f: $$why) PROVEN: the proof does not see it"; bad=1; \
	  elif grep -q 'NOT proven' $(EQUIV_B)/broken$$n.out; then \
	    echo "equiv-broken: $$n ($$f: $$why) rejected"; \
	  else echo "equiv-broken: $$n ($$f: $$why) did not run:"; cat $(EQUIV_B)/broken$$n.out; bad=1; fi; \
	done < $(EQUIV_BROKEN); [ $$bad = 0 ] && echo "equiv-broken: all $$n variants rejected"
