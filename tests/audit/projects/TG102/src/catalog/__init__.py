from catalog.models import MODELS as CATALOG
from .status import *
