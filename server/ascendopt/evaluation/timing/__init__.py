"""evaluation/timing"""
