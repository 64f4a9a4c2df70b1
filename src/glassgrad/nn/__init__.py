"""glassgrad.nn. Modules, parameters and init arrive with the nn issue; functional is here now."""

from . import functional
